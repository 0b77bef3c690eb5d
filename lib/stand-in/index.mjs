// Stand-in code for synths that skip bundling (tests, `cdk synth -c skipBundling=true`): every
// function points at this directory so no dist/ is needed. Deploying it would be a mistake, so it fails loudly.
export const handler = async () => {
  throw new Error('This function was synthesized with skipBundling=true and has no code; redeploy without it.');
};
