// tool_result content as the model gets it, with zot's leniency: a block of an unknown type becomes a
// text placeholder (the others are kept), and an empty result one short text (providers need one).
import type { ImageBlock, ResultBlock, TextBlock } from '../protocol/frames.js';
import type { ToolContent } from './types.js';

/** The text that stands for a result without content. */
export const NO_CONTENT_TEXT = '(extension returned no content)';

/** The text that stands for a block of an unknown type. */
export function unsupportedBlockText(type: string): string {
  return `[unsupported content block: ${type}]`;
}

const NO_CONTENT: readonly ToolContent[] = [{ type: 'text', text: NO_CONTENT_TEXT }];

/** `tool_result.content` (validated) as ToolContent. All-text content, the common case, is used as is. */
export function toolContent(blocks: readonly ResultBlock[] | undefined): ToolContent[] {
  if (blocks === undefined || blocks.length === 0) return NO_CONTENT.map((block) => ({ ...block }));
  // A validated text block is exactly a ToolContent text block (a loop: no callback per block).
  for (let i = 0; i < blocks.length; i++) if (blocks[i]!.type !== 'text') return blocks.map(toContent);
  return blocks as TextBlock[];
}

// The schema guarantees that a block typed text or image is a well-formed one.
function isTextBlock(block: ResultBlock): block is TextBlock {
  return block.type === 'text';
}

function toContent(block: ResultBlock): ToolContent {
  if (isTextBlock(block)) return block;
  if (block.type === 'image') {
    const image = block as ImageBlock;
    return { type: 'image', mimeType: image.mime_type, data: image.data };
  }
  return { type: 'text', text: unsupportedBlockText(block.type) };
}
