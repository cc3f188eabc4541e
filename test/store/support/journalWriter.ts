/**
 * A writer for the crash test (test/store/sqliteCrash.test.ts): takes the state directory given as
 * its argument, then appends journal entries for ever, printing `acked <at>` once each append has
 * returned — what a pass counts as written. It is killed with SIGKILL mid-stream.
 */
import { openStateDirForWriting } from '../../../lib/hosts/stateDir.ts';
import { jobSet, makeJournalEntry, T0 } from '../storeBehaviour.ts';

const stateDir = process.argv[2];
if (stateDir === undefined) throw new Error('journalWriter: expected the state directory as its argument');
const { store } = openStateDirForWriting(stateDir, { command: 'journal writer' });
for (let pass = 0; ; pass += 1) {
  const at = T0 + pass;
  await store.appendJournal(makeJournalEntry(jobSet('crash'), at));
  await store.noteEvent(jobSet('crash'), { triggers: [], owner: 'writer', now: at, ttlMs: 30_000 });
  process.stdout.write(`acked ${at}\n`);
}
