// Sample code for the Context Ledger demo workspace.
export interface SlipHold {
  slipId: string;
  expiresAt: string;
}

export function isExpired(hold: SlipHold, now: Date): boolean {
  return Date.parse(hold.expiresAt) <= now.getTime();
}
