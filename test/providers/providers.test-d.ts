// Our structural provider types against the official SDKs' own types: a drift in their shapes fails here.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type AnthropicTool,
  type AnthropicToolResult,
  type OpenAIChatTool,
  type OpenAIChatToolMessage,
  type OpenAIChatToolResult,
  type OpenAIChatUserMessage,
  type OpenAIFunctionCallOutput,
  type OpenAIResponsesTool,
  type ToolInfo,
  type ToolResult,
  toAnthropicToolResult,
  toAnthropicTools,
  toOpenAIToolResult,
  toOpenAITools,
} from '../../src/index.js';

declare const tools: ToolInfo[];
declare const result: ToolResult;

describe('Anthropic Messages API', () => {
  it('tool definitions are SDK tools', () => {
    expectTypeOf(toAnthropicTools(tools)).toEqualTypeOf<AnthropicTool[]>();
    expectTypeOf<AnthropicTool>().toExtend<Anthropic.Messages.Tool>();
    const params: Anthropic.Messages.MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [],
      tools: toAnthropicTools(tools),
    };
    expectTypeOf(params.tools).toExtend<Anthropic.Messages.ToolUnion[] | undefined>();
  });

  it('tool results are tool_result blocks of a user message', () => {
    expectTypeOf(toAnthropicToolResult('toolu_1', result)).toEqualTypeOf<AnthropicToolResult>();
    expectTypeOf<AnthropicToolResult>().toExtend<Anthropic.Messages.ToolResultBlockParam>();
    const message: Anthropic.Messages.MessageParam = { role: 'user', content: [toAnthropicToolResult('toolu_1', result)] };
    expectTypeOf(message).toExtend<Anthropic.Messages.MessageParam>();
  });
});

describe('OpenAI Chat Completions', () => {
  it('tool definitions are SDK function tools', () => {
    expectTypeOf(toOpenAITools(tools, { api: 'chat' })).toEqualTypeOf<OpenAIChatTool[]>();
    expectTypeOf<OpenAIChatTool>().toExtend<OpenAI.Chat.Completions.ChatCompletionFunctionTool>();
    const params: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
      model: 'gpt-5',
      messages: [],
      tools: toOpenAITools(tools, { api: 'chat', strict: false }),
    };
    expectTypeOf(params.tools).toExtend<OpenAI.Chat.Completions.ChatCompletionTool[] | undefined>();
  });

  it('tool results are a tool message and an optional user message', () => {
    const { message, followUp } = toOpenAIToolResult('call_1', result, { api: 'chat', images: 'follow-up' });
    expectTypeOf(toOpenAIToolResult('call_1', result, { api: 'chat' })).toEqualTypeOf<OpenAIChatToolResult>();
    expectTypeOf<OpenAIChatToolMessage>().toExtend<OpenAI.Chat.Completions.ChatCompletionToolMessageParam>();
    expectTypeOf<OpenAIChatUserMessage>().toExtend<OpenAI.Chat.Completions.ChatCompletionUserMessageParam>();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [message, ...(followUp === undefined ? [] : [followUp])];
    expectTypeOf(messages).toExtend<OpenAI.Chat.Completions.ChatCompletionMessageParam[]>();
  });
});

describe('OpenAI Responses', () => {
  it('tool definitions are SDK function tools', () => {
    expectTypeOf(toOpenAITools(tools, { api: 'responses' })).toEqualTypeOf<OpenAIResponsesTool[]>();
    expectTypeOf<OpenAIResponsesTool>().toExtend<OpenAI.Responses.FunctionTool>();
    const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: 'gpt-5', input: [], tools: toOpenAITools(tools, { api: 'responses' }) };
    expectTypeOf(params.tools).toExtend<OpenAI.Responses.Tool[] | undefined>();
  });

  it('tool results are function_call_output input items', () => {
    expectTypeOf(toOpenAIToolResult('call_1', result, { api: 'responses' })).toEqualTypeOf<OpenAIFunctionCallOutput>();
    expectTypeOf<OpenAIFunctionCallOutput>().toExtend<OpenAI.Responses.ResponseInputItem.FunctionCallOutput>();
    const input: OpenAI.Responses.ResponseInput = [toOpenAIToolResult('call_1', result, { api: 'responses' })];
    expectTypeOf(input).toExtend<OpenAI.Responses.ResponseInputItem[]>();
  });

  it('the api option picks the return type; a runtime union gets the union', () => {
    const api = Math.random() > 0.5 ? ('chat' as const) : ('responses' as const);
    expectTypeOf(toOpenAITools(tools, { api })).toEqualTypeOf<OpenAIChatTool[] | OpenAIResponsesTool[]>();
    // @ts-expect-error images is a Chat Completions option
    toOpenAIToolResult('call_1', result, { api: 'responses', images: 'follow-up' });
  });
});
