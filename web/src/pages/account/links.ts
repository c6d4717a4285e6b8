/** Where an invitation hands over to sign-up or log-in, and back (pages/Auth.tsx reads `invite` and `email`). */
export const invitePath = (token: string) => `/invite?token=${encodeURIComponent(token)}`;
export const withInvite = (path: '/signup' | '/login', email: string, token: string) => `${path}?${new URLSearchParams({ email, invite: token }).toString()}`;
