import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publicFailure } from '../src/readiness.js';

test('a failure shown to anyone names the component and the cause, with addresses, users and paths masked', () => {
  const cases: Array<[string, string]> = [
    ['cannot connect to RabbitMQ at amqp://quire:***@10.0.3.7:5672/prod: connect ECONNREFUSED 10.0.3.7:5672', 'cannot connect to RabbitMQ at <address> connect ECONNREFUSED <address>'],
    ['getaddrinfo ENOTFOUND mq.internal.example.com', 'getaddrinfo ENOTFOUND mq.internal.example.com'],
    ["Access denied for user 'root'@'172.18.0.4' (using password: YES)", "Access denied for user 'root'@'<address>' (using password: YES)"],
    ['connect ECONNREFUSED [::1]:3306', 'connect ECONNREFUSED <address>'],
    ['SQLITE_CANTOPEN: unable to open database file /srv/quire/data/quire.db', 'SQLITE_CANTOPEN: unable to open database file <path>'],
    ['connect ETIMEDOUT db.corp.example.net:3306', 'connect ETIMEDOUT <address>'],
  ];
  for (const [raw, shown] of cases) {
    const out = publicFailure(raw);
    assert.doesNotMatch(out, /10\.0\.3\.7|172\.18|::1|\/srv\/|corp\.example\.net:3306|quire:\*\*\*/, raw);
    assert.match(out, /ECONNREFUSED|ENOTFOUND|Access denied|SQLITE_CANTOPEN|ETIMEDOUT/);
    assert.equal(out.replace(/[:,]/g, ''), shown.replace(/[:,]/g, ''), raw);
  }
});
