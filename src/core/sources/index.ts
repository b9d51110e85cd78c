/**
 * Live sources: pure adapters that turn workspace data (file text, diagnostics, git
 * state) into candidates for the one assembler, plus task profiles and ranking.
 * Reading the disk, git or the editor is the job of src/node/sources and
 * src/extension/sources.
 */
export * from './types';
export * from './profiles';
export * from './rank';
export { SourceCache } from './cache';
export { codeCandidates, importSpecifiers, outlineFromSymbols, resolveImport, MAX_CODE_CHARS, type CodeFile, type CodeRole, type PlainSymbol } from './code';
export { diagnosticCandidates, type DiagnosticOptions, type PlainDiagnostic, type Severity } from './diagnostics';
export { docCandidates, sectionCandidates, splitDoc, type DocFile, type DocSection } from './docs';
export { deploymentCandidates, deploymentKind, sanitizeDeployment, type DeploymentFile, type DeploymentKind } from './deployment';
export { gitCandidates, type GitChange, type GitCommit, type GitState } from './git';
export { conversationCandidates, type ChatTurn } from './conversation';
export { cleanLogText, errorExcerpts, isErrorLine, logCandidates, MAX_LOG_CHARS, type LogCandidateOptions, type LogExcerpt, type LogInput } from './logs';
