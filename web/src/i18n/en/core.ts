import { account } from './account';
import { common } from './common';
import { frame } from './frame';
import { home } from './home';

/** The namespaces bundled with the first screen: the frame, the shared words, the account screens and the checklist. */
export const core = { common, frame, account, home };
