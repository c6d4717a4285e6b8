import { useParams } from 'react-router';
import { useProjects } from './session';

/** The project of the current URL (/app/p/:projectId/…) and the user's role on it. */
export function useCurrentProject() {
  const { projectId = '' } = useParams();
  const projects = useProjects();
  const project = projects.data?.find((p) => p.id === projectId);
  return { projectId, project, projects };
}
