// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- workflows import activities as types only
import { createActivities } from '../../../activities';
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- workflows do no I/O
import pg from 'pg';

export const probes = [createActivities, pg];
