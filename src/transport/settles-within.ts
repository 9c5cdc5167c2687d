import pTimeout from 'p-timeout';

/** Whether `promise` resolves within `ms` (false when it times out or rejects). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  try {
    await pTimeout(promise, { milliseconds: ms });
    return true;
  } catch {
    return false;
  }
}
