import { useState, type FormEvent } from 'react';
import { Anchor, Button, Center, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link, Navigate, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { rememberKeys } from '../api/keys';
import { useMe } from '../api/session';
import { ErrorState, Loading } from '../components/States';
import { useTranslation } from 'react-i18next';

export default function NewProject() {
  const { t } = useTranslation('account');
  const me = useMe();
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const navigate = useNavigate();
  const qc = useQueryClient();
  if (me.isPending) return <Loading />;
  if (!me.data) return <Navigate to="/login" replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const project = await unwrap(api.POST('/users/@me/projects', { body: { name } }));
      rememberKeys(project.id, { publicKey: project.publicKey, secretKey: project.secretKey });
      await qc.invalidateQueries({ queryKey: keys.projects.all() });
      void navigate(`/p/${project.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={460}>
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h2">
              {t('newProject.heading')}
            </Title>
            <Text c="dimmed" size="sm">
              {t('newProject.intro')}
            </Text>
            <TextInput
              label={t('newProject.name')}
              required
              maxLength={100}
              value={name}
              error={fieldError(error, 'name')}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            {error && !hasFieldErrors(error) ? <ErrorState error={error} title={t('newProject.failed')} /> : null}
            <Button type="submit" loading={busy}>
              {t('newProject.submit')}
            </Button>
            <Anchor component={Link} to="/" size="sm">
              {t('newProject.back')}
            </Anchor>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
