import { describe, expect, it } from 'vitest';
import { buildOpenApiFiles, exampleFaults, readExamples } from '../../scripts/openapi';
import { buildOpenApi } from '../../shared/http/openapi/document';
import { routes } from '../../shared/routes';

/**
 * The recorded examples (docs/openapi/examples/, written by `npm run openapi:examples` from the
 * platform's real answers: test/api/openapi-examples.test.ts) as `npm run openapi:check` holds them:
 * each validates against its operation's schema, and one that no longer does, or that names what
 * the document no longer has, is refused by name.
 */

const info = { version: 'test' };
const operation = (document: any, operationId: string) =>
  Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item)).find((candidate) => candidate.operationId === operationId);

describe('the recorded OpenAPI examples', () => {
  it('each validate against their operation’s request and response schemas', () => {
    for (const [file, document] of Object.entries(buildOpenApiFiles())) expect(exampleFaults(document), file).toEqual([]);
  });

  it('show the money paths with a request and an answer', () => {
    const [wallet, ledger] = [buildOpenApiFiles()['wallet.json'], buildOpenApiFiles()['ledger.json']];
    const created = { createTopup: '201', createTransfer: '201', createPayment: '201', capturePayment: '200', createRefund: '201', createPayout: '201' };
    for (const [id, status] of Object.entries(created)) {
      const op = operation(wallet, id);
      expect(op.requestBody.content['application/json'].example, id).toBeTypeOf('object');
      expect(op.responses[status].content['application/json'].example, id).toMatchObject({ id: expect.any(String) });
    }
    expect(operation(ledger, 'createPosting').requestBody.content['application/json'].example.legs).toHaveLength(2);
    expect(operation(wallet, 'listPayments').responses['200'].content['application/json'].example).toMatchObject({ data: expect.any(Array), has_more: false });
  });

  it('refuses an example its schema no longer accepts, naming the operation and the field', () => {
    const examples = structuredClone(readExamples('wallet.json'));
    (examples.createTransfer!.response as Record<string, unknown>).amount = '2500';
    (examples.createTransfer!.request as Record<string, unknown>).unknown_field = true;
    const faults = exampleFaults(buildOpenApi(routes, 'public', { ...info, examples }));
    expect(faults.some((fault) => fault.startsWith('createTransfer 201 application/json: /amount'))).toBe(true);
    expect(faults.some((fault) => fault.startsWith('createTransfer request application/json'))).toBe(true);
  });

  it('refuses an example of an operation or status the document does not have', () => {
    const examples = readExamples('wallet.json');
    expect(() => buildOpenApi(routes, 'public', { ...info, examples: { ...examples, removedOperation: { status: 200, response: {} } } })).toThrow(/removedOperation names no operation/);
    expect(() => buildOpenApi(routes, 'public', { ...info, examples: { ...examples, createUser: { ...examples.createUser!, status: 202 } } })).toThrow(/createUser answered 202/);
  });
});
