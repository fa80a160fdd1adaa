// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- core/ may not import db/
import { openOrm } from '../../../db/orm';

export const probe = openOrm;
