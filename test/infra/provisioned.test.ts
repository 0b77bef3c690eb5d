import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { provisionedConcurrencyOf } from '../../lib/api';
import { provisionedConcurrencyFromContext } from '../../lib/wallet-stack';
import { gateways } from '../../shared/http/gateways';
import { routes } from '../../shared/routes';
import { allTemplates, resourcesOfType, synthesize, type Synthesized } from './support';

/**
 * Provisioned concurrency for latency-critical routes (WalletStackProps.provisionedConcurrency):
 * the routes named get an alias `live` with that many initialized environments, and API Gateway
 * invokes the alias, so requests land on them; every other route is unchanged.
 */

const publicRoutes = routes.filter((route) => gateways.public.apis.includes(route.api));
const settings = { money: 2, payments: 1, createOrder: 3 };

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({}, 'pc', { provisionedConcurrency: settings });
}, 240_000);

describe('provisioned concurrency', () => {
  it('takes an operationId over a tag, and gives a route named by neither none', () => {
    const createTransfer = publicRoutes.find((route) => route.operationId === 'createTransfer')!;
    const createOrder = publicRoutes.find((route) => route.operationId === 'createOrder')!;
    const listTenants = routes.find((route) => route.operationId === 'listTenants')!;
    expect(provisionedConcurrencyOf(createTransfer, settings)).toBe(2);
    expect(provisionedConcurrencyOf(createOrder, { ...settings, orders: 1 })).toBe(3);
    expect(provisionedConcurrencyOf(listTenants, settings)).toBe(0);
    expect(provisionedConcurrencyOf(createTransfer, undefined)).toBe(0);
  });

  it('reads -c provisionedConcurrency=name:count pairs, and refuses anything else', () => {
    const app = (value: unknown) => new App({ context: { provisionedConcurrency: value } });
    expect(provisionedConcurrencyFromContext(app('transfers:2,payments:1'))).toEqual({ transfers: 2, payments: 1 });
    expect(provisionedConcurrencyFromContext(new App())).toBeUndefined();
    expect(() => provisionedConcurrencyFromContext(app('transfers'))).toThrow(/name:count/);
    expect(() => provisionedConcurrencyFromContext(app('transfers:0'))).toThrow(/name:count/);
  });

  it('puts each named route behind an alias with its provisioned environments, invoked by API Gateway', () => {
    const templates = allTemplates(synth.stacks.wallet);
    const aliases = templates.flatMap((template) => resourcesOfType(template, 'AWS::Lambda::Alias').map(([logicalId, alias]) => ({ logicalId, alias, template })));
    const expected = publicRoutes.filter((route) => provisionedConcurrencyOf(route, settings) > 0);
    expect(expected.length).toBeGreaterThan(3);
    expect(aliases).toHaveLength(expected.length);
    for (const { logicalId, alias, template } of aliases) {
      expect(alias.Properties).toMatchObject({ Name: 'live', ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: expect.any(Number) } });
      const units = (alias.Properties!.ProvisionedConcurrencyConfig as { ProvisionedConcurrentExecutions: number }).ProvisionedConcurrentExecutions;
      // The method that invokes it, and the permission that lets it, name the alias.
      const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').filter(([, method]) => JSON.stringify(method.Properties?.Integration).includes(`"Ref":"${logicalId}"`));
      expect(methods, logicalId).toHaveLength(1);
      const operation = String(methods[0]![1].Properties!.OperationName);
      expect(units, operation).toBe(provisionedConcurrencyOf(publicRoutes.find((route) => route.operationId === operation)!, settings));
      const permissions = resourcesOfType(template, 'AWS::Lambda::Permission').filter(([, permission]) => JSON.stringify(permission.Properties?.FunctionName).includes(`"Ref":"${logicalId}"`));
      expect(permissions, logicalId).toHaveLength(1);
    }
  });
});
