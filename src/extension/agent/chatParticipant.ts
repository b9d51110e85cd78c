import * as vscode from 'vscode';
import { buildContextTool, createArtifactTool, searchArtifactsTool } from '../../core/agentTools';
import { renderExplain } from '../../core/assemble';
import { type Artifact, type ArtifactType, artifactUrn, idFromRef } from '../../core/model';
import type { ChatTurn } from '../../core/sources';
import type { Services } from '../services';
import { agentEnvFor } from './agentEnv';
import { budgetBreakdown, explainArtifact, parseRemember, rememberPreview, typeChoices } from './chatModel';
import { AGENT_COMMANDS, CHAT_COMMANDS } from './ids';
import { fenced } from './lmToolModel';

export interface LedgerChatMetadata {
  command: string;
  /** The artifact a followup can explain. */
  artifactId?: string;
}

/** What a /remember button saves: everything needed, as JSON-safe arguments. */
export interface RememberSaveArgs {
  folder: string;
  type: ArtifactType;
  title: string;
  body: string;
}

type Stream = vscode.ChatResponseStream;

/** `@ledger`: /context, /remember, /search, /explain; a plain question is answered from the ledger. Loaded on the first request (see ./index.ts). */
export function handleChatRequest(
  s: Services,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: Stream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  return handle(s, request, chatTurns(context.history), stream, token);
}

/** The chat so far as plain turns (what `@ledger` was asked and answered): the conversation source. */
function chatTurns(history: vscode.ChatContext['history']): ChatTurn[] {
  const turns: ChatTurn[] = [];
  for (const turn of history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      turns.push({ role: 'user', text: turn.prompt });
    } else if (turn instanceof vscode.ChatResponseTurn) {
      const text = turn.response
        .map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : ''))
        .join('')
        .trim();
      if (text) turns.push({ role: 'assistant', text });
    }
  }
  return turns;
}

async function handle(
  s: Services,
  request: vscode.ChatRequest,
  conversation: ChatTurn[],
  stream: Stream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const folder = s.contexts.currentFolder();
  if (!folder) {
    stream.markdown('Open a workspace folder first: the Context Ledger keeps one ledger per folder.');
    return { metadata: { command: request.command ?? '' } };
  }
  const prompt = request.prompt.trim();
  try {
    switch (request.command) {
      case CHAT_COMMANDS.context:
        return await contextCommand(s, folder, prompt, conversation, stream);
      case CHAT_COMMANDS.remember:
        return rememberCommand(folder, prompt, stream);
      case CHAT_COMMANDS.search:
        return await searchCommand(s, folder, prompt, stream);
      case CHAT_COMMANDS.explain:
        return await explainCommand(s, folder, prompt, stream);
      default:
        return await askCommand(s, folder, request, conversation, stream, token);
    }
  } catch (error) {
    s.logger.error(`@ledger /${request.command ?? ''}`, error);
    return { errorDetails: { message: `The Context Ledger failed: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

async function contextCommand(
  s: Services,
  folder: vscode.WorkspaceFolder,
  prompt: string,
  conversation: ChatTurn[],
  stream: Stream,
): Promise<vscode.ChatResult> {
  stream.progress('Building the context…');
  if (prompt === '') {
    // No task text: the same build as "Build agent context" (active task, files in front of you).
    const built = await s.contexts.build(folder, { trigger: 'command', log: true, conversation });
    const r = built.result;
    stream.markdown(budgetBreakdown(r.budget, r.tokensUsed, r.tokenizer, r.items, r.layers));
    stream.markdown(`\n\nActive paths: ${built.paths.length ? built.paths.slice(0, 8).map((p) => `\`${p}\``).join(', ') : 'none'}\n\n`);
    stream.markdown(fenced(r.text, 'markdown'));
    return { metadata: { command: CHAT_COMMANDS.context, ...(r.items[0] ? { artifactId: r.items[0].id } : {}) } };
  }
  const env = agentEnvFor(s, folder, { channel: 'chat', readOnly: true, conversation });
  const result = await buildContextTool.run(env, { task: prompt });
  if (result.isError) {
    stream.markdown(result.text);
    return { metadata: { command: CHAT_COMMANDS.context } };
  }
  const data = result.data as { budget: number; tokensUsed: number; tokenizer: string; items: Array<{ id: string; layer: string; mode: string; tokens: number }> };
  stream.markdown(budgetBreakdown(data.budget, data.tokensUsed, data.tokenizer, data.items));
  stream.markdown('\n\n');
  stream.markdown(fenced(result.text, 'markdown'));
  return { metadata: { command: CHAT_COMMANDS.context, ...(data.items[0] ? { artifactId: data.items[0].id } : {}) } };
}

function rememberCommand(folder: vscode.WorkspaceFolder, prompt: string, stream: Stream): vscode.ChatResult {
  const draft = parseRemember(prompt);
  if ('error' in draft) {
    stream.markdown(draft.error);
    return { metadata: { command: CHAT_COMMANDS.remember } };
  }
  stream.markdown(rememberPreview(draft, (t) => fenced(t, 'markdown')));
  const args = (type: ArtifactType): RememberSaveArgs => ({ folder: folder.uri.toString(), type, title: draft.title, body: draft.body });
  stream.button({ command: AGENT_COMMANDS.rememberSave, title: `Save as ${draft.type}`, arguments: [args(draft.type)] });
  if (!draft.typeGiven) {
    for (const type of typeChoices(draft).slice(0, 4)) stream.button({ command: AGENT_COMMANDS.rememberSave, title: `Save as ${type}`, arguments: [args(type)] });
  }
  return { metadata: { command: CHAT_COMMANDS.remember } };
}

export async function saveRemembered(s: Services, args: RememberSaveArgs): Promise<void> {
  const folder = s.registry.folders().find((f) => f.uri.toString() === args?.folder);
  if (!folder) {
    void vscode.window.showWarningMessage('Context Ledger: that workspace folder is no longer open; nothing was saved.');
    return;
  }
  const env = agentEnvFor(s, folder, { channel: 'chat', readOnly: false });
  const result = await createArtifactTool.run(env, { type: args.type, title: args.title, body: args.body });
  s.artifactTree.refresh();
  if (result.isError) void vscode.window.showWarningMessage(`Context Ledger: not saved. ${result.text}`);
  else void vscode.window.showInformationMessage(`Context Ledger: saved ${args.type} "${args.title}" (unreviewed).`);
}

async function searchCommand(s: Services, folder: vscode.WorkspaceFolder, prompt: string, stream: Stream): Promise<vscode.ChatResult> {
  const env = agentEnvFor(s, folder, { channel: 'chat', readOnly: true });
  const result = await searchArtifactsTool.run(env, prompt === '' ? {} : { query: prompt });
  stream.markdown(result.text.replace(/\n\nFull text: .*$/s, ''));
  const first = (result.data?.results as Array<{ id: string }> | undefined)?.[0];
  return { metadata: { command: CHAT_COMMANDS.search, ...(first ? { artifactId: first.id } : {}) } };
}

/** The artifact a /explain prompt names: an id or URN, else the best search match. */
async function resolveArtifact(s: Services, folder: vscode.WorkspaceFolder, prompt: string): Promise<Artifact | undefined> {
  const byId = await s.registry.get(folder).read((store) => {
    const a = store.getArtifact(idFromRef(prompt));
    return a ? (store.latestOfChain(a.chainId) ?? a) : undefined;
  });
  if (byId) return byId;
  const env = agentEnvFor(s, folder, { channel: 'chat', readOnly: true });
  const found = await searchArtifactsTool.run(env, { query: prompt, limit: 1, status: 'any' });
  const id = (found.data?.results as Array<{ id: string }> | undefined)?.[0]?.id;
  return id ? s.registry.get(folder).read((store) => store.getArtifact(id)) : undefined;
}

async function explainCommand(s: Services, folder: vscode.WorkspaceFolder, prompt: string, stream: Stream): Promise<vscode.ChatResult> {
  stream.progress('Building the context to explain…');
  const built = await s.contexts.build(folder, { trigger: 'preview', log: false });
  if (prompt === '') {
    stream.markdown(fenced(renderExplain(built.result)));
    return { metadata: { command: CHAT_COMMANDS.explain } };
  }
  const artifact = await resolveArtifact(s, folder, prompt);
  if (!artifact) {
    stream.markdown(`No artifact matches \`${prompt.replace(/`/g, '')}\`. Give an id or URN (\`${artifactUrn('<id>')}\`), or other words.`);
    return { metadata: { command: CHAT_COMMANDS.explain } };
  }
  stream.markdown(explainArtifact(built.result, artifact));
  stream.markdown(`\n\n_For the current files${built.task ? ` and the task "${built.task.title}"` : ''}; a different task description can change this._`);
  return { metadata: { command: CHAT_COMMANDS.explain, artifactId: artifact.id } };
}

/** A plain question: the context for it, then the chat model's answer from that context. */
async function askCommand(
  s: Services,
  folder: vscode.WorkspaceFolder,
  request: vscode.ChatRequest,
  conversation: ChatTurn[],
  stream: Stream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const prompt = request.prompt.trim();
  if (prompt === '') {
    stream.markdown('Ask about the project, or use `/context`, `/remember`, `/search` or `/explain`.');
    return { metadata: { command: '' } };
  }
  const env = agentEnvFor(s, folder, { channel: 'chat', readOnly: true, conversation });
  const built = await buildContextTool.run(env, { task: prompt });
  try {
    const messages = [
      vscode.LanguageModelChatMessage.User(
        'Answer from the project knowledge below. Say when it does not cover the question. Cite artifacts by their ledger:// URN.\n\n' +
          `${built.text}\n\nQuestion: ${prompt}`,
      ),
    ];
    const response = await request.model.sendRequest(messages, {}, token);
    for await (const chunk of response.text) stream.markdown(chunk);
  } catch (error) {
    // No usable model (none installed, no consent): the knowledge itself is still the answer.
    s.logger.info(`@ledger: no model answer (${error instanceof Error ? error.message : String(error)}); showing the context.`);
    stream.markdown(fenced(built.text, 'markdown'));
  }
  return { metadata: { command: '' } };
}
