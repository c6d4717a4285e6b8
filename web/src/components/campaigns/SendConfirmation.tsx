import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { contactsText, sendBodyOf, type CampaignDraft, type Schedule } from '../../api/campaigns';
import { ErrorState } from '../States';
import { ContentChecks } from '../emailEditor/ContentChecks';
import { useTranslation } from 'react-i18next';

/** The send confirmation's sentence: "Spring sale goes to 3 contacts at 2030-01-15 09:30 (Asia/Tokyo)." */
export function goesText(t: TFunction<'campaigns'>, name: string, contacts: string, s: Schedule): string {
  if (s.kind === 'now') return t('editor.goesNow', { name, contacts });
  const local = s.local.replace('T', ' ');
  if (s.kind === 'local') return t('editor.goesLocal', { name, contacts, local });
  return t('editor.goesAt', { name, contacts, local, zone: s.timeZone });
}

/** What the confirmation names: the audience counted now (`estimated` as GET /campaigns/:id/audience says) and when it goes. */
export interface Confirming {
  count: number;
  estimated?: boolean;
  schedule: Schedule;
}

/**
 * "Send now" and "Schedule" ask first: how many contacts the audience holds now (`confirming.count`,
 * counted by the composer), the content's checks, then POST /campaigns/:id/send.
 */
export function SendConfirmation({
  projectId,
  campaignId,
  draft,
  confirming,
  onClose,
}: {
  projectId: string;
  campaignId: string | undefined;
  draft: CampaignDraft;
  confirming: Confirming | null;
  onClose(): void;
}) {
  const { t } = useTranslation('campaigns');
  const qc = useQueryClient();
  const send = useMutation({
    mutationFn: (s: Schedule) => unwrap(api.POST('/campaigns/{id}/send', { params: { path: { id: campaignId! } }, body: sendBodyOf(s) })),
    onSuccess: async () => {
      onClose();
      await Promise.all([
        qc.invalidateQueries({ queryKey: keys.campaigns.one(projectId, campaignId) }),
        qc.invalidateQueries({ queryKey: keys.campaigns.all(projectId) }),
      ]);
    },
  });
  return (
    <Modal opened={!!confirming} onClose={onClose} title={confirming?.schedule.kind === 'now' ? t('editor.confirmSend') : t('editor.confirmSchedule')}>
      {confirming ? (
        <Stack>
          <Text data-testid="send-confirmation">
            {confirming.count
              ? goesText(t, draft.name, contactsText(confirming.count, confirming.estimated), confirming.schedule)
              : t('editor.nobody', { name: draft.name })}
          </Text>
          {confirming.schedule.kind !== 'now' ? (
            <Text size="sm" c="dimmed">
              {t('editor.countedNow')}
            </Text>
          ) : null}
          <ContentChecks
            projectId={projectId}
            subject={draft.subject}
            body={draft.body}
            document={draft.editor === 'blocks' ? draft.document : null}
            text={draft.text || null}
            type={draft.type}
          />
          {send.error ? <ErrorState error={send.error} title={t('editor.notSent')} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('editor.cancel')}
            </Button>
            <Button onClick={() => send.mutate(confirming.schedule)} loading={send.isPending}>
              {confirming.schedule.kind === 'now'
                ? t('editor.sendTo', { contacts: contactsText(confirming.count, confirming.estimated) })
                : t('editor.scheduleFor', { contacts: contactsText(confirming.count, confirming.estimated) })}
            </Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}
