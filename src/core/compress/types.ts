/** Compression's vocabulary, without its code, so type-only users (the webview) need nothing else. */
export const COMPRESSION_LEVELS = ['light', 'medium', 'heavy'] as const;
export type CompressionLevel = (typeof COMPRESSION_LEVELS)[number];

/** How a text is compressed: prose by sentences, code by declarations, config by keys. */
export type ContentKind = 'markdown' | 'text' | 'code' | 'config';
