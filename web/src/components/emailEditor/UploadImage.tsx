import { Button, FileButton, Group, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { ApiError, fieldsOf, forProject, messageOf } from '../../api/client';
import { useTranslation } from 'react-i18next';

/** POST /uploads/image (multipart field "file"): the stored image's public URL. */
async function upload(projectId: string, file: File): Promise<string> {
  const form = new FormData();
  form.append('file', file);
  const response = await fetch('/uploads/image', { method: 'POST', credentials: 'same-origin', headers: forProject(projectId), body: form });
  const data = await response.json().catch(() => undefined);
  if (!response.ok) {
    const { message, code } = messageOf(data, response.status);
    throw new ApiError(response.status, message, code, fieldsOf(data));
  }
  return (data as { url: string }).url;
}

/** "Upload image": a PNG, JPEG, GIF or WebP of at most 5 MB, whose URL `onUploaded` gets. */
export function UploadImage({ projectId, onUploaded }: { projectId: string; onUploaded(url: string): void }) {
  const { t } = useTranslation('editor');
  const send = useMutation({ meta: { success: t('upload.done') }, mutationFn: (file: File) => upload(projectId, file), onSuccess: onUploaded });
  return (
    <Group gap="xs">
      <FileButton accept="image/png,image/jpeg,image/gif,image/webp" onChange={(file) => file && send.mutate(file)}>
        {(props) => (
          <Button {...props} size="compact-xs" variant="light" loading={send.isPending}>
            {t('upload.button')}
          </Button>
        )}
      </FileButton>
      {send.error ? (
        <Text size="xs" c="red" role="alert">
          {send.error.message}
        </Text>
      ) : null}
    </Group>
  );
}
