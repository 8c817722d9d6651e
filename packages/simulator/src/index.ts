/**
 * `@tilecast/simulator`: the device-side tile state machine, free of Node and DOM APIs so
 * it runs in a browser, a phone app's JavaScript, or a test. The page server is in
 * `@tilecast/simulator/page`.
 */
export * from './tile-state.js';
