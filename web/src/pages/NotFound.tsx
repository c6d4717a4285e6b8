import { Anchor, Center, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';

export default function NotFound() {
  return (
    <Center mih="60vh">
      <Stack align="center">
        <Title order={1}>Page not found</Title>
        <Anchor component={Link} to="/">
          Go to the dashboard
        </Anchor>
      </Stack>
    </Center>
  );
}
