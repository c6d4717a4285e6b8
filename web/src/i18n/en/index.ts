import { areas } from './areas';
import { core } from './core';

/** Every English namespace: the reference the other languages are typed from (resources.ts). */
export const en = { ...core, ...areas };
