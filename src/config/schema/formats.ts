/** Formats draft-07 defines that ajv-formats does not provide. */

import type { Ajv } from 'ajv';

export function addExtraFormats(_validator: InstanceType<typeof Ajv>): void {}
