import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { FunctionCode, FunctionRoles, ProjectFunction, profileKey, skipBundling } from '../../lib/function';
import { ProjectTable } from '../../lib/table';
import { walletTable } from '../../shared/tables';
import { scratchApp } from './support';

/** The project function construct on its own: grants, env and code selection. */

function fixture() {
  const stack = new Stack(scratchApp(), 'Fixture');
  const table = new ProjectTable(stack, walletTable);
  const role = new iam.Role(stack, 'Shared', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  const fn = (name: string) => new ProjectFunction(stack, { name, handler: 'platform/healthz', description: name, code: FunctionCode.standIn(), role });
  return { stack, table, role, fn };
}

describe('ProjectFunction.bindTable', () => {
  it('sets the table env var and grants read actions only for RO', () => {
    const { stack, table, fn } = fixture();
    fn('reader').bindTable(table, 'RO');
    const template = Template.fromStack(stack);
    const [fnProps] = Object.values(template.findResources('AWS::Lambda::Function')).map((r) => r.Properties);
    expect(Object.keys(fnProps.Environment.Variables)).toContain(walletTable.envVar);
    const actions = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as { Action: string | string[] }[]).flatMap((s) => s.Action),
    );
    expect(actions).toContain('dynamodb:Query');
    expect(actions).not.toContain('dynamodb:PutItem');
    expect(actions).not.toContain('dynamodb:Scan');
  });

  it('names each index instead of granting index/*', () => {
    const { stack, table, fn } = fixture();
    fn('writer').bindTable(table, 'RW');
    const policy = JSON.stringify(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
    for (const index of walletTable.indexes) expect(policy).toContain(`/index/${index.name}`);
    expect(policy).not.toContain('/index/*');
  });

  it('refuses to give a second function on a shared role a different access level', () => {
    const { table, fn } = fixture();
    fn('first').bindTable(table, 'RO');
    expect(() => fn('second').bindTable(table, 'RW')).toThrow(/shared role/);
  });
});

describe('FunctionRoles', () => {
  it('shares a role between equal profiles and splits one after MAX_FUNCTIONS_PER_ROLE functions', () => {
    const stack = new Stack(scratchApp(), 'Roles');
    const roles = new FunctionRoles(stack, 'Roles');
    const profile = { tables: { wallet: 'RO' as const }, capabilities: [] };
    const assigned = Array.from({ length: FunctionRoles.MAX_FUNCTIONS_PER_ROLE + 1 }, () => roles.roleFor(profile));
    expect(new Set(assigned.slice(0, FunctionRoles.MAX_FUNCTIONS_PER_ROLE)).size).toBe(1);
    expect(assigned.at(-1)).not.toBe(assigned[0]);
    expect(roles.roleFor({ tables: { wallet: 'RW' }, capabilities: [] })).not.toBe(assigned[0]);
    expect(profileKey(profile)).toBe('wallet-RO');
  });
});

describe('code selection', () => {
  it('skips bundling for -c skipBundling=true and for an empty aws:cdk:bundling-stacks, not otherwise', () => {
    expect(skipBundling(scratchApp({ context: { skipBundling: 'true' } }))).toBe(true);
    expect(skipBundling(scratchApp({ context: { 'aws:cdk:bundling-stacks': [] } }))).toBe(true);
    expect(skipBundling(scratchApp({ context: { 'aws:cdk:bundling-stacks': ['**'] } }))).toBe(false);
    expect(skipBundling(scratchApp())).toBe(false);
  });

  it('fails with the command to run when a bundle is missing', () => {
    const stack = new Stack(scratchApp(), 'Missing');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    expect(
      () => new ProjectFunction(stack, { name: 'x', handler: 'no/such', description: 'x', code: FunctionCode.bundled('/nonexistent'), role }),
    ).toThrow(/scripts\/bundle\.ts/);
  });
});
