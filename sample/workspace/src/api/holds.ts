// Sample code for the Context Ledger demo workspace.
export function createHold(input: { slipId: string; nights: number }): { slipId: string; nights: number } {
  return input;
}
