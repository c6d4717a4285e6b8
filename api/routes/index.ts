import type { RouteDef } from '../route';
import health from './health';
import config from './config';
import auth from './auth';
import users from './users';
import contacts from './contacts';
import domains from './domains';
import track from './track';
import send from './send';
import docs from './docs';
import verify from './verify';
import templates from './templates';
import unsubscribe from './unsubscribe';

/** Every route of the API. New resource files are added here; app, OpenAPI and the fuzzer follow. */
export const allRoutes: RouteDef[] = [...health, ...config, ...docs, ...auth, ...users, ...send, ...track, ...contacts, ...domains, ...verify, ...templates, ...unsubscribe];
