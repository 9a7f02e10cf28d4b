package io.github.dropwizardhikari.benchmarks.startup;

import io.dropwizard.hibernate.UnitOfWork;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

@Path("/people")
@Produces(MediaType.APPLICATION_JSON)
public class PeopleResource {
    private final PersonDAO people;

    public PeopleResource(PersonDAO people) {
        this.people = people;
    }

    @POST
    @UnitOfWork
    public Person createPerson(Person person) {
        return people.create(person);
    }

    @GET
    @UnitOfWork
    public List<Person> listPeople() {
        return people.findAll();
    }

    @GET
    @Path("/{id}")
    @UnitOfWork
    public Person getPerson(@PathParam("id") long id) {
        return people.findById(id).orElseThrow(() -> new NotFoundException("No such person."));
    }
}
