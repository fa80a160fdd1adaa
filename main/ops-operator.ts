import os from 'node:os';
import { stringProblem } from '../core/text-safety';
import type { Operator } from '../db/services/operator-audit.service';
import { UsageMistake } from './ops-command';

/** What an audit row holds at most (the operator_action checks). */
const MAX_NAME_LENGTH = 200;
const MAX_REASON_LENGTH = 1000;

/** `--operator NAME`, else OPS_OPERATOR, else the OS user, which is recorded beside it: a typed name proves nothing. */
export function operatorOf(flag: string | undefined, configured: string | undefined): Operator {
  const osUser = systemUserName();
  const actor = (flag ?? configured ?? osUser).trim();
  if (!actor) throw new UsageMistake('--operator must not be blank');
  checkText('--operator', actor, MAX_NAME_LENGTH);
  return { actor, osUser };
}

/** `--reason TEXT`: trimmed, 1 to 1000 characters, no control characters; null when not given. */
export function reasonOf(flag: string | undefined): string | null {
  if (flag === undefined) return null;
  const reason = flag.trim();
  if (!reason) throw new UsageMistake('--reason must not be blank');
  checkText('--reason', reason, MAX_REASON_LENGTH);
  return reason;
}

function checkText(flag: string, text: string, max: number): void {
  if (text.length > max) throw new UsageMistake(`${flag} must be at most ${max} characters`);
  const problem = stringProblem(text);
  if (problem) throw new UsageMistake(`${flag} ${problem}`);
}

/** The login of the account running this process; its uid when it has no name (a container user without a passwd entry). */
function systemUserName(): string {
  try {
    const name = os.userInfo().username.trim();
    if (name && name.length <= MAX_NAME_LENGTH && stringProblem(name) === undefined) return name;
  } catch {
    // No passwd entry: fall through to the uid.
  }
  return `uid:${process.getuid?.() ?? 'unknown'}`;
}
