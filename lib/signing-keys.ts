import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { Capability } from './function';

/**
 * The keys that sign wallet-issued tokens (user tokens, staff sessions): KMS asymmetric keys,
 * RSA_2048 / SIGN_VERIFY, so the private key never leaves KMS and only a role with kms:Sign can
 * mint a token. KMS never rotates asymmetric keys, so each key is a numbered generation and a
 * rotation is a reviewed change of `signingKeyGenerations` below (runbook: docs/infrastructure.md).
 */

/** Which key generations a stage has: `current` signs; `previous` is only published for verifiers. */
export interface SigningKeyGenerations {
  current: number;
  /**
   * A second key verifiers accept: the previous generation after a rotation (until its tokens have
   * expired), or the next one just before (so every verifier knows it before anything signs with it).
   */
  previous?: number;
}

/**
 * Per stage; a stage not listed has generation 1 only. Rotating `prod` from 1 to 2 is three
 * deploys: `{ current: 1, previous: 2 }`, then `{ current: 2, previous: 1 }`, then `{ current: 2 }`.
 */
export const signingKeyGenerations: Readonly<Record<string, SigningKeyGenerations>> = {};

export const signingKeysOf = (stage: string): SigningKeyGenerations => signingKeyGenerations[stage] ?? { current: 1 };

export interface SigningKeysProps {
  generations: SigningKeyGenerations;
  /** `iss` of every wallet token: WALLET_ISSUER. */
  issuer: string;
}

export class WalletSigningKeys extends Construct {
  readonly current: kms.Key;
  readonly previous: kms.Key | undefined;
  /** Env var and GetPublicKey on every published key: every function that verifies wallet tokens. */
  readonly verify: Capability;
  /** kms:Sign on the current key: only the functions that mint tokens (they hold `verify` as well). */
  readonly sign: Capability;

  constructor(scope: Construct, id: string, props: SigningKeysProps) {
    super(scope, id);
    const { current, previous } = props.generations;
    if (!Number.isInteger(current) || current < 1 || (previous !== undefined && (!Number.isInteger(previous) || previous < 1 || previous === current))) {
      throw new Error(`Signing key generations must be distinct positive integers: ${JSON.stringify(props.generations)}`);
    }
    this.current = this.generation(current);
    this.previous = previous === undefined ? undefined : this.generation(previous);
    const published = [this.current, ...(this.previous ? [this.previous] : [])];

    const environment: Record<string, string> = {
      WALLET_ISSUER: props.issuer,
      WALLET_SIGNING_KMS_KEY_ID: this.current.keyArn,
      ...(this.previous ? { WALLET_SIGNING_KMS_PREVIOUS_KEY_ID: this.previous.keyArn } : {}),
    };
    const getPublicKey = new iam.PolicyStatement({ actions: ['kms:GetPublicKey'], resources: published.map((key) => key.keyArn) });
    this.verify = {
      key: 'token-verify',
      environment,
      grant: (grantee) => grantee.grantPrincipal.addToPrincipalPolicy(getPublicKey),
    };
    this.sign = {
      key: 'token-sign',
      environment,
      // The current key only: the second key never signs, whichever way the rotation runs.
      grant: (grantee) => grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['kms:Sign'], resources: [this.current.keyArn] })),
    };
  }

  private generation(n: number): kms.Key {
    const stack = Stack.of(this);
    const key = new kms.Key(this, `Generation${n}`, {
      keySpec: kms.KeySpec.RSA_2048,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      description: `${stack.stackName}: signs wallet tokens (RS256), generation ${n}`,
      alias: `alias/${stack.stackName}/token-signing-${n}`,
      // A retired generation is removed from the stack and kept; its deletion is scheduled by hand
      // once no token it signed can be valid (runbook), so a wrong deploy can never destroy the signer.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Pinned: a refactor of this construct must never replace a key (every token would go invalid).
    (key.node.defaultChild as kms.CfnKey).overrideLogicalId(`TokenSigningKey${n}`);
    return key;
  }
}
