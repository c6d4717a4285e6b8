import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from './client';
import { keys } from './queryKeys';

export type TwoFactorStatus = ResponseOf<'/users/@me/two-factor', 'get'>;

/** Whether the signed-in user has 2FA (GET /users/@me/two-factor). */
export function useTwoFactorStatus(enabled = true) {
  return useQuery({ queryKey: keys.twoFactor(), queryFn: () => unwrap(api.GET('/users/@me/two-factor')), enabled });
}

/** Where the dashboard sets up 2FA (the API's 403 TWO_FACTOR_REQUIRED names the same path under /app). */
export const TWO_FACTOR_PAGE = '/account/two-factor';

/** A second factor as the API takes it: a code from the app, or a recovery code. */
export type SecondFactor = { code: string } | { recoveryCode: string };
