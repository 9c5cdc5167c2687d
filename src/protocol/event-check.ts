export { eventProblem } from './frame-check.js'; // TODO(core-v3 merge): remove; host/event-fanout.ts imports from ./frame-check.js
