// my-extension: a zot extension written with the TypeScript SDK.
// This file only defines it (tests import it and run it in-process); main.ts runs it over stdio.
import { z } from 'zod';
import { defineExtension, display, text } from '../../src/sdk/index.js';

const ext = defineExtension({ name: 'my-extension', version: '0.1.0' }); // = "name" in extension.json

// A slash command: /my-extension <args>
ext.command('my-extension', { description: 'say hello' }, (args) => display(`hello, ${args || 'world'}`));

// A tool the model can call. The zod schema is sent as JSON Schema, and args are validated against
// it before the handler runs: bad args are answered as an error naming the fields.
ext.tool(
  'shout',
  { description: 'Upper-case a text.', schema: z.object({ text: z.string().min(1) }) },
  ({ text: input }) => text(input.toUpperCase()),
);

export default ext;
