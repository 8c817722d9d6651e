// One verifier for receivers everywhere: core's WebCrypto-only implementation, bundled
// into the client by tsup (a relative import is compiled in, never a run-time dependency).
export * from '../../core/src/webhooks/verify.js';
