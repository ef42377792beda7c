import { defineConformance, type ExpectedFailures } from '../src/conformance.ts';
import { defineAuthSuite, defineSuite } from '../src/suite/define.ts';
import { WORKERD_CAPS, workerdTarget } from '../src/targets/runtimes.ts';

/**
 * WORKERD_TASKS_WITHOUT_DURABLE_OBJECTS: the 2026-07-28 task scenarios workerd fails until the
 * Worker routes tasks to Durable Objects (docs/design/tasks.md §4.8). Until then a task lives in
 * the isolate that created it, and workerd ends a request's pending timers and promises once its
 * response is sent, so a task whose handler still waits after its CreateTaskResult (a sleep, an
 * answer through tasks/update) never reaches a terminal state: "did not reach terminal state
 * within 10000ms", or the scenario's 30 s timeout. Scenarios whose handler finishes in the same
 * turn pass and are not listed. Each listed scenario must fail (one that passes fails the test):
 * delete this list when the routing lands.
 */
const WORKERD_TASKS_WITHOUT_DURABLE_OBJECTS = 'tasks run in the isolate, not a Durable Object';
const EXPECTED_FAILURES: ExpectedFailures = {
  '2026-07-28': {
    'tasks-lifecycle': WORKERD_TASKS_WITHOUT_DURABLE_OBJECTS,
    'tasks-wire-fields': WORKERD_TASKS_WITHOUT_DURABLE_OBJECTS,
    'tasks-mrtr-input': WORKERD_TASKS_WITHOUT_DURABLE_OBJECTS,
    'tasks-dispatch-and-envelope': WORKERD_TASKS_WITHOUT_DURABLE_OBJECTS,
  },
};

defineSuite('workerd', WORKERD_CAPS, () => workerdTarget());
defineConformance('workerd', WORKERD_CAPS, () => workerdTarget('conformance'), EXPECTED_FAILURES);
defineAuthSuite('workerd', () => workerdTarget('auth'));
