// Sample code for the Context Ledger demo workspace.
export async function handleWebhook(event: { id: string; type: string }): Promise<void> {
  if (await alreadySeen(event.id)) return;
  if (event.type === 'charge.refunded') await markRefunded(event.id);
}

async function alreadySeen(_id: string): Promise<boolean> {
  return false;
}

async function markRefunded(_id: string): Promise<void> {}
