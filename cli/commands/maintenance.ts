/** Repairs after an upgrade or an incident: recounting list totals, rewriting stored subscriptions, filing customers. */
import { rebuildListCounts } from '../../lib/data/count-rebuild.js';
import { reindexCustomers } from '../../lib/data/customer-reindex.js';
import { rewriteSubscriptions } from '../../lib/data/subscription-rewrite.js';
import type { CommandTable } from '../command.js';
import { requireApp } from '../options.js';

export const maintenanceCommands: CommandTable = {
  'counts rebuild': {
    usage: 'counts rebuild [--app ID]',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = values.app === undefined ? undefined : await requireApp(values);
      // One line per app on stderr while it runs: a whole table takes a while.
      const apps = await rebuildListCounts(appId, (app) =>
        console.error(`${app.app_id}: ${app.subscriptions} subscription(s), ${app.corrected} count(s) corrected`),
      );
      return {
        json: { apps },
        text:
          apps.length === 0
            ? 'No subscriptions: nothing to count.'
            : `Recounted ${apps.length} app(s): ${apps.reduce((sum, a) => sum + a.corrected, 0)} count(s) corrected.`,
      };
    },
  },
  'subscriptions rewrite': {
    usage: 'subscriptions rewrite',
    options: {},
    async run() {
      const { examined, rewritten, purchases_moved } = await rewriteSubscriptions();
      return {
        json: { examined, rewritten, purchases_moved },
        text: `Read ${examined} subscription item(s); rewrote ${rewritten} in the current shape; moved ${purchases_moved} purchase owner(s) onto their original transactions.`,
      };
    },
  },
  'customers reindex': {
    usage: 'customers reindex',
    options: {},
    async run() {
      // A line per page of the scan on stderr: a whole table takes a while.
      const { examined, indexed } = await reindexCustomers((sofar) =>
        console.error(`${sofar.examined} profile(s) read, ${sofar.indexed} filed`),
      );
      return {
        json: { examined, indexed },
        text: `Read ${examined} profile(s) not in the customers index; filed ${indexed} (GET /v1/customers finds them).`,
      };
    },
  },
};
