// Activities as types: what workflow code may import of them.
import type { Activities } from '../../../activities';

export type Probe = Activities;
