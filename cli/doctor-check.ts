export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of `threadlab doctor`: what was checked, what was found, and how to fix it. */
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}
