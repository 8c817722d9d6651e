// Baseline for P1/P3: bare node:http that reads the body, validates the content with the
// same valibot schema Tilecast uses, stores it in a Map and answers with the validated content
// in the response shape of docs/contract/publisher-api.md#widget-response (so both servers send the same bytes).
import { barePublisher } from '../lib/bare-publish.mjs';
import { serve } from '../lib/serve.mjs';

await serve(barePublisher(process.argv[2])); // 'widget' | 'activity'
