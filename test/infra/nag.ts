import type { App, PolicyViolation } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions pack over a synthesized app: the findings left after every
 * `Validations.of(...).acknowledge(...)`, as `rule at construct path` lines so a failure names them.
 */
export function unacknowledgedFindings(app: App): { errors: string[]; warnings: string[] } {
  const report = new AwsSolutionsChecks().validateScope(app);
  const lines = (severity: string) =>
    report.violations
      .filter((violation: PolicyViolation) => violation.severity === severity)
      .flatMap((violation) =>
        violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath ?? resource.resourceLogicalId}`),
      );
  return { errors: lines('error'), warnings: lines('warning') };
}
