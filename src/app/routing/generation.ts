/**
 * A counter bumped by every registration anywhere. Applications compile their routing table
 * lazily and rebuild it when the counter moved, which is what makes a mount a live reference:
 * routes added to a router after it was mounted still count.
 */
let generation = 0;

export function bumpGeneration(): void {
  generation++;
}

export function currentGeneration(): number {
  return generation;
}
