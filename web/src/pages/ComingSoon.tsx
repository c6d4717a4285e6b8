import { Alert, Title } from '@mantine/core';
import { useLocation } from 'react-router';
import { SECTIONS } from '../routes';

export default function ComingSoon() {
  const { pathname } = useLocation();
  const section = SECTIONS.find((s) => pathname.split('/').includes(s.path));
  return (
    <>
      <Title order={1} size="h2" mb="md">
        {section?.label ?? 'Coming soon'}
      </Title>
      <Alert color="gray" title="Coming soon">
        This screen is not built yet. Everything it will show is already available through the API (see /docs).
      </Alert>
    </>
  );
}
