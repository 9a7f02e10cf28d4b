INSERT INTO greetings (text) VALUES ('migrated through HikariCP');
