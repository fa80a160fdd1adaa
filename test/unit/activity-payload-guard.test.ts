import { ApplicationFailure } from '@temporalio/common';
import { PayloadGuardInterceptor } from '../../activities/payload-guard.interceptor';
import { unreadablePayload } from '../../core/unreadable-payload';

type ActivityExecuteInput = Parameters<PayloadGuardInterceptor['execute']>[0];

function inputOf(args: unknown[]): ActivityExecuteInput {
  return { args, headers: {} };
}

describe("an activity's refused input", () => {
  it('does nothing and fails the attempt retryably (a fresh delivery of the stored input may decrypt)', async () => {
    const next = jest.fn(async () => 'ran');
    const failure = await new PayloadGuardInterceptor()
      .execute(inputOf([unreadablePayload('does not decrypt with key "k" (altered, or not ours)')]), next)
      .catch((error: unknown) => error);
    expect(next).not.toHaveBeenCalled();
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'payload-refused', nonRetryable: false });
    expect((failure as Error).message).toContain('does not decrypt');
  });

  it('an input that decoded runs the activity', async () => {
    const next = jest.fn(async () => 'ran');
    await expect(new PayloadGuardInterceptor().execute(inputOf([{ transferId: 't' }]), next)).resolves.toBe('ran');
  });
});
