import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { AuthCard } from '../../components/account/AuthCard';
import { ForgotPasswordForm } from '../../components/account/ForgotPasswordForm';

/** `/forgot-password`, from the login screen's "Forgot your password?". */
export default function ForgotPassword() {
  return (
    <AuthCard title="Reset your password">
      <Text size="sm" c="dimmed">
        Enter the address of your account: we email it a link to choose a new password.
      </Text>
      <ForgotPasswordForm />
      <Anchor component={Link} to="/login" size="sm">
        Back to log in
      </Anchor>
    </AuthCard>
  );
}
