import { Alert, Button, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { TWO_FACTOR_PAGE } from '../../api/twoFactor';

/** What a member without 2FA sees of a project whose owner requires it (the API answers 403 TWO_FACTOR_REQUIRED). */
export function TwoFactorRequired({ projectName }: { projectName: string }) {
  return (
    <Alert color="yellow" title="Two-factor authentication required" role="alert">
      <Stack gap="sm">
        <Text size="sm">
          The owners of {projectName} require two-factor authentication of every member. Set it up on your account to open the project.
        </Text>
        <Button component={Link} to={TWO_FACTOR_PAGE} w="fit-content">
          Set up two-factor authentication
        </Button>
      </Stack>
    </Alert>
  );
}
