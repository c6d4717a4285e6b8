import { Navigate } from 'react-router';
import { useMe, useProjects } from '../api/session';
import { ErrorState, Loading } from '../components/States';
import { useTranslation } from 'react-i18next';

/** `/app/`: the first project, the project form for a user without one, or the login form. */
export default function Home() {
  const { t } = useTranslation();
  const me = useMe();
  const projects = useProjects(!!me.data);
  if (me.isPending) return <Loading />;
  if (me.error) return <ErrorState error={me.error} />;
  if (!me.data) return <Navigate to="/login" replace />;
  if (projects.isPending) return <Loading label={t('loadingProjects')} />;
  if (projects.error) return <ErrorState error={projects.error} />;
  if (!projects.data.length) return <Navigate to="/new-project" replace />;
  return <Navigate to={`/p/${projects.data[0].id}`} replace />;
}
