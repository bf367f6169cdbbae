import { describeLiveEvents } from '../../../test/support/live-events-suite.js';

describeLiveEvents('GET /v1/events');
