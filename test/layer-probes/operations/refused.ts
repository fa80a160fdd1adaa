// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- operations/ may not import api/
import { createApp } from '../../../api/app';

export const probe = createApp;
