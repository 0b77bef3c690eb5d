import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { keyAttributes, type TableDefinition } from '../shared/tables';

/**
 * A DynamoDB table built from its shared definition (shared/tables.ts), so keys, indexes, stream
 * and TTL are the ones the embedded platform creates on DynamoDB Local. Every table here holds
 * money or its audit trail: point-in-time recovery, deletion protection and RETAIN are not options.
 */
export class ProjectTable extends Construct {
  readonly table: dynamodb.Table;
  readonly definition: TableDefinition;

  constructor(scope: Construct, definition: TableDefinition) {
    super(scope, definition.logicalId);
    this.definition = definition;
    const types = new Map(keyAttributes(definition).map((key) => [key.name, dynamodb.AttributeType[key.type === 'N' ? 'NUMBER' : 'STRING']]));
    const key = (name: string): dynamodb.Attribute => ({ name, type: types.get(name) ?? dynamodb.AttributeType.STRING });

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: key(definition.partitionKey),
      sortKey: key(definition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      timeToLiveAttribute: definition.ttlAttribute,
      ...(definition.stream ? { stream: dynamodb.StreamViewType[definition.stream] } : {}),
    });
    for (const index of definition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        projectionType: dynamodb.ProjectionType[index.projection],
      });
    }
    // The definition names the logical id; keeping it stable means a refactor of this construct
    // can never make CloudFormation replace (and so empty) a table.
    (this.table.node.defaultChild as dynamodb.CfnTable).overrideLogicalId(definition.logicalId);
  }
}
