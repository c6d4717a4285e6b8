import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { previewEmail, type PreviewInput } from '../../api/emailEditor';
import { keys } from '../../api/queryKeys';

/**
 * The server's compiled and rendered email with its checks (POST /templates/preview), 400 ms after the
 * last change: the preview pane and the "Checks" panel read the same answer.
 */
export function useEmailPreview(projectId: string, input: PreviewInput, enabled = true) {
  const [debounced] = useDebouncedValue(input, 400);
  return useQuery({
    queryKey: keys.templates.preview(projectId, debounced),
    placeholderData: keepPreviousData,
    enabled: enabled && !!debounced.subject,
    retry: false,
    queryFn: () => previewEmail(projectId, debounced),
  });
}
