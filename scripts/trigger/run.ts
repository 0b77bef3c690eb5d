import { ok } from '../../client/core';
import { EVENT_TYPES, isEventType } from '../../shared/events/names';
import { EVENT_WAIT_MS, TriggerRefusal, until, type RecipeOutcome, type TriggerContext } from './fixtures';
import { NO_RECIPE, recipes } from './recipes';

/** The event types `npm run trigger` can fire: every type the platform emits today. */
export const TRIGGERABLE_TYPES = Object.keys(recipes).sort();

/**
 * Fires one event of `type` against the running platform and waits until it is in the tenant's
 * event history. Refuses (TriggerRefusal) a name that is no event type, a type of the catalogue the
 * platform does not emit yet, and an expiry the platform's settings put too far ahead.
 */
export async function triggerEvent(ctx: TriggerContext, type: string): Promise<{ id: string; type: string }> {
  if (!isEventType(type)) throw new TriggerRefusal(`${type} is not an event type; the platform emits: ${TRIGGERABLE_TYPES.join(', ')}`);
  const recipe = recipes[type as keyof typeof recipes] as ((ctx: TriggerContext) => Promise<void | RecipeOutcome>) | undefined;
  if (!recipe && NO_RECIPE[type]) throw new TriggerRefusal(`${type} cannot be triggered: ${NO_RECIPE[type]}`);
  if (!recipe) throw new TriggerRefusal(`${type} is an event type the platform does not emit yet, so nothing can fire it (${EVENT_TYPES.length} types are named, ${TRIGGERABLE_TYPES.length} emitted)`);
  const newest = async () => (await ok(ctx.wallet.GET('/v1/webhook_events', { params: { query: { type, limit: 1 } } }))).data[0];
  const before = (await newest())?.id;
  const outcome = await recipe(ctx);
  // Ids are UUIDv7, newest first: a newer event than the one before the recipe is the recipe's.
  const event = await until(
    `the ${type} event`,
    async () => {
      const latest = await newest();
      return latest && latest.id !== before && (before === undefined || latest.id > before) ? latest : undefined;
    },
    outcome?.eventWithinMs ?? EVENT_WAIT_MS,
  );
  return { id: event.id, type: event.type };
}
