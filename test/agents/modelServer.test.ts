/**
 * The scripted model on its own, as the agents' HTTP clients see it: the order the script is
 * answered in, side requests, bad requests, and each dialect's wire format. The agents
 * themselves are driven in nativeLoading.test.ts.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { requestText, startScriptedModel } from './harness';

async function post(url: string, body: unknown): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The `data:` payloads of a server-sent event stream, parsed. */
function events(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

test('turns answer main-loop requests in order; side requests take none; a used-up script says done', async () => {
  const model = await startScriptedModel([{ write: { file_path: '/w/a.txt', content: 'ä\n' } }, { text: 'second' }]);
  try {
    const main = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'Write' }] };
    const side = { model: 'm', messages: [{ role: 'user', content: 'title?' }] };
    const first = JSON.parse((await post(`${model.url}/v1/messages`, main)).text) as { stop_reason: string; content: { type: string; name?: string; input?: unknown }[] };
    assert.equal(first.stop_reason, 'tool_use');
    assert.deepEqual(first.content[0], { type: 'tool_use', id: 'toolu_scripted_1', name: 'Write', input: { file_path: '/w/a.txt', content: 'ä\n' } });
    assert.match((await post(`${model.url}/v1/messages`, side)).text, /"text":"ok"/);
    assert.match((await post(`${model.url}/v1/messages`, main)).text, /"text":"second".*"stop_reason":"end_turn"/);
    assert.match((await post(`${model.url}/v1/messages`, main)).text, /"text":"done"/);
    assert.deepEqual(
      model.requests.map((r) => r.scripted),
      [true, false, true, true],
    );
    assert.equal(model.mainRequests().length, 3);
  } finally {
    await model.close();
  }
});

test('a malformed body or an unknown path is refused with 404 and still recorded', async () => {
  const model = await startScriptedModel([{ text: 'never' }]);
  try {
    assert.equal((await post(`${model.url}/v1/messages`, '{not json')).status, 404);
    assert.equal((await post(`${model.url}/v1/other`, { tools: [{ name: 'x' }] })).status, 404);
    assert.equal((await fetch(`${model.url}/v1/messages`)).status, 404);
    assert.equal(model.requests.length, 3);
    assert.equal(model.requests[0]!.body, undefined);
    assert.equal(model.mainRequests().length, 0, 'no turn was consumed');
  } finally {
    await model.close();
  }
});

test('each dialect streams the events its agent parses', async () => {
  const model = await startScriptedModel([
    { text: 'hello', write: { file_path: '/w/b.txt', content: 'x' } },
    { tool: { name: 'exec_command', input: { cmd: 'ls' } } },
    { write: { file_path: '/w/c.txt', content: 'y' } },
  ]);
  try {
    const anthropic = await post(`${model.url}/v1/messages?beta=true`, { stream: true, messages: [], tools: [{ name: 'Write' }] });
    assert.match(anthropic.type, /text\/event-stream/);
    assert.deepEqual(
      events(anthropic.text).map((e) => e.type),
      ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
    );
    const responses = events((await post(`${model.url}/v1/responses`, { stream: true, input: [], tools: [{ type: 'function', name: 'exec_command' }] })).text);
    assert.equal(responses[0]!.type, 'response.created');
    const done = responses.find((e) => e.type === 'response.output_item.done')!.item as { type: string; name: string; arguments: string };
    assert.deepEqual([done.type, done.name, JSON.parse(done.arguments)], ['function_call', 'exec_command', { cmd: 'ls' }]);
    assert.equal(responses.at(-1)!.type, 'response.completed');
    const gemini = events((await post(`${model.url}/v1beta/models/g:streamGenerateContent?alt=sse`, { contents: [], tools: [{ functionDeclarations: [] }] })).text);
    assert.deepEqual((gemini[0]!.candidates as { content: { parts: unknown[] } }[])[0]!.content.parts, [{ functionCall: { name: 'write_file', args: { file_path: '/w/c.txt', content: 'y' } } }]);
    const router = JSON.parse((await post(`${model.url}/v1beta/models/g:generateContent`, { contents: [], generationConfig: { responseMimeType: 'application/json' } })).text) as { candidates: { content: { parts: { text: string }[] } }[] };
    assert.equal(router.candidates[0]!.content.parts[0]!.text, '{}', 'a side request that wants JSON gets JSON');
  } finally {
    await model.close();
  }
});

test('requestText reads what the model reads in every dialect, tool definitions left out', () => {
  const anthropic = requestText({
    system: [{ type: 'text', text: 'SYS' }],
    tools: [{ name: 'Write', description: 'TOOLDEF' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'ask — 日本語' }] },
      { role: 'assistant', content: [{ type: 'tool_use', name: 'Write', input: { file_path: '/a' } }] },
      { role: 'user', content: [{ type: 'tool_result', content: 'done' }] },
    ],
  });
  assert.equal(anthropic, 'SYS\n\nask — 日本語\n\nWrite {"file_path":"/a"}\n\ndone');
  const responses = requestText({
    instructions: 'INS',
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] },
      { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls"}' },
      { type: 'function_call_output', output: 'out' },
    ],
  });
  assert.equal(responses, 'INS\n\nq\n\nexec_command {"cmd":"ls"}\n\nout');
  const gemini = requestText({
    systemInstruction: { parts: [{ text: 'GSYS' }] },
    contents: [
      { role: 'user', parts: [{ text: 'g' }] },
      { role: 'model', parts: [{ functionCall: { name: 'write_file', args: { file_path: '/b' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { output: 'ok' } } }] },
    ],
  });
  assert.equal(gemini, 'GSYS\n\ng\n\nwrite_file {"file_path":"/b"}\n\nwrite_file {"output":"ok"}');
  assert.equal(requestText(undefined), '');
  assert.equal(requestText({}), '');
});
