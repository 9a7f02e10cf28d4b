package io.github.dropwizardhikari.example.readme;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The entity of the README's Hibernate application. */
@Entity
@Table(name = "people")
public class Person {
    @Id
    private long id;

    @Column(nullable = false)
    private String name = "";

    public long getId() {
        return id;
    }

    public String getName() {
        return name;
    }
}
