// The test kit: `zot-extension-host/testing`. Every export is listed by name.
export { createTestHost, TestHost } from './test-host.js';
export type { RunnableExtension, TestHostOptions, TestRecord, PanelFrame, WaitOptions, PressKeyOptions, TestCallOptions } from './test-host.js';
export type { ProgressRecord, ProtocolCapability } from './protocol-shim.js';
