import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * A registered step's encoded input with its checkpoint: the Postgres migration 8 in
 * MySQL/MariaDB types. LONGTEXT like `output` (an input is as large as the codec makes it);
 * nullable at the end of the row, so the ALTER is instant, and idempotent on its own.
 */
export const checkpointInput: Migration = {
  revision: 8,
  name: 'checkpoint_input',
  statements: (t: Tables) =>
    addColumnUnlessPresent(t, 'cairn_checkpoints', t.checkpoints, 'input LONGTEXT NULL'),
}
