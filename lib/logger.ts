import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'svc'): Logger {
  return pino({ name, level, base: { service: name } });
}
