// Shared by the provider adapters: image formats every provider accepts, and the error prefix.
import type { ToolContent } from '../host/types.js';

/** The image formats both Anthropic and OpenAI accept as base64 input. */
export type ProviderImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

const IMAGE_TYPES: ReadonlySet<string> = new Set<ProviderImageType>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** The provider media type of an image block, or undefined when providers reject that format. */
export function providerImageType(mimeType: string): ProviderImageType | undefined {
  const type = mimeType.trim().toLowerCase();
  const normalised = type === 'image/jpg' ? 'image/jpeg' : type;
  return IMAGE_TYPES.has(normalised) ? (normalised as ProviderImageType) : undefined;
}

/** What the model reads instead of an image it cannot be given. */
export function imagePlaceholder(image: Extract<ToolContent, { type: 'image' }>, why: string): string {
  return `[image ${image.mimeType} omitted: ${why}]`;
}

/** `data:` URL of a base64 image. */
export const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;
