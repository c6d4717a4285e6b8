import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, fieldError, unwrap, type User } from '../../api/client';
import { ErrorState } from '../States';
import { ResendVerification } from './ResendVerification';

/** The address, its state, and a change that applies only once the new address's link is opened. */
export function EmailSection({ user }: { user: User }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const change = useMutation({
    mutationFn: () => unwrap(api.POST('/users/@me/email', { body: { email, password } })),
    onSuccess: () => setPassword(''),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  const own = (f: string) => !!fieldError(change.error, f);
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={2} size="h4">
          Email address
        </Title>
        <Group gap="xs">
          <Text>{user.email}</Text>
          {user.emailVerified ? <Badge color="green" variant="light">confirmed</Badge> : <Badge color="yellow" variant="light">not confirmed</Badge>}
        </Group>
        {user.emailVerified ? null : <ResendVerification />}
        <form onSubmit={submit}>
          <Stack>
            <Text size="sm" c="dimmed">
              We email a link to the new address; your address changes when it is opened, and the current one is told.
            </Text>
            <TextInput
              label="New email address"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={fieldError(change.error, 'email')}
              w={320}
            />
            <PasswordInput
              label="Password"
              description="Your current password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={fieldError(change.error, 'password')}
              w={320}
            />
            {change.error && !own('email') && !own('password') ? <ErrorState error={change.error} title="The address did not change" /> : null}
            {change.data ? (
              <Alert color="green" role="status">
                {change.data.message}
              </Alert>
            ) : null}
            <Group>
              <Button type="submit" loading={change.isPending}>
                Change email
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Paper>
  );
}
